"""Tunable numbers of the vision pipeline, in one place (no magic constants in the stages).

Sizes are in board units (one square = 1.0) so they hold for any board and camera distance.
Colour thresholds are relative to the contrast between the board's own dark and light squares,
measured in every image, so they do not belong to one board or piece set.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class PieceGeometry:
    """Piece size relative to a square; defaults fit a 40 mm square with 30x7 mm discs."""

    radius_sq: float = 0.375
    height_sq: float = 0.175

    @classmethod
    def from_mm(cls, square_mm: float, disc_diameter_mm: float,
                disc_height_mm: float) -> PieceGeometry:
        return cls(radius_sq=0.5 * disc_diameter_mm / square_mm,
                   height_sq=disc_height_mm / square_mm)


@dataclass(frozen=True)
class KingConfig:
    """The stacked-king test (vision.kings): which height explains each piece's silhouette."""

    lines_sq: tuple[float, ...] = (-0.2, -0.1, 0.0, 0.1, 0.2)  # along lines
    # Sample spacing on the lines along the view and across it.  The set's width, read across,
    # sets every piece's radius, and a 2 % error in it moves a piece's preference by about a
    # fifth: at 2 px there, kings 2-4 px from a man in the image were read as men one time in
    # nine.  (Rendered scenes, seeds 7 and 30: 107 and 251 misread pieces with both at 2 px,
    # 87 and 232 with both at 1 px, 87 and 238 with only the lines across at 1 px, the
    # cheapest; the lines across at 2 px and along at 1: 110 on seed 7.)
    step_px: float = 2.0
    across_step_px: float = 1.0
    margin_sq: float = 0.12  # the lines reach this far beyond the largest silhouette
    # Samples this close to a grid line may show the two squares blurred into one colour (a
    # grey between black and white squares looks like a white piece's shaded wall).
    edge_mix_px: float = 2.5
    radius_range: tuple[float, float] = (0.8, 1.2)  # of the configured radius: sets differ
    # Widths tried across the view, over that range.  A 2 % error in the set's radius moves a
    # piece's preference by about a fifth: 17 steps (2.5 % apart) left most sets' radius to
    # the prior below.
    width_steps: int = 33
    # The set's radius is then refined between these shares of its measured width (n steps).
    radius_fit: tuple[float, float, int] = (0.9, 1.04, 8)
    radius_prior: float = 0.96  # the usual share (the widest of three lines overshoots)
    radius_free: float = 0.025  # free around it; beyond, each 0.02 costs the weight below
    radius_prior_weight: float = 0.3
    # Brightness factors a colour may take and still be the board's (dimmed in a shadow) or
    # the piece's (a wall turned from the light is much darker than the top face).  (The
    # board from 0.35, for a square in a hard shadow under a piece's own: seed 7 read 337
    # squares wrong, 312 from 0.5.)
    board_shade: tuple[float, float] = (0.5, 1.5)
    piece_shade: tuple[float, float] = (0.2, 1.6)
    # In a picture with no colour (a monochrome camera, a greyscale photo) every grey is a
    # shade of every other, and ranges that wide call every sample both board and piece:
    # there the light model's correction must do, and the ranges narrow to these.
    grey_board_shade: tuple[float, float] = (0.8, 1.25)
    grey_piece_shade: tuple[float, float] = (0.5, 1.5)
    # There a king must also win by `grey_split` more, and the wall test counts
    # `grey_wall_weight`: a wall in shade is told from the board by its brightness alone, a
    # light set's top face from light squares hardly at all, and the silhouette fit, free to
    # place a piece whose ends it cannot see, called more men kings than kings men.  (Rendered
    # scenes read without colour, each piece's evidence recorded, the weights chosen on seed
    # 30: 631 of its 4,261 men and kings misread as a picture in colour weighs them, 480 so;
    # seed 1, `vision_eval.py --grey`'s 300: 706 -> 548 of 4,194.)
    grey_split: float = 0.15
    grey_wall_weight: float = 0.25
    # Over light squares and the frame, a colour this close (0..255) to the piece's or closer
    # tells the two apart that much less (vision.kings.piece_likeness).  (Rendered scenes,
    # seeds 1, 7 and 30: 722, 248 and 392 squares misread without, 719, 245 and 385 with 40;
    # 721 on seed 1 with 60, and 721 with 40 over the dark squares too.)
    faint_apart: float = 40.0
    # A sample that is a dark shade of the piece (below `near_dark_shade` of its colour: its
    # wall in shade) is likened to piece and board with their colours taken as at most
    # `near_apart` times its two distances apart, not as far as the lit colours are (vision.
    # kings.shade_apart), in the height fit along the view, where a man and a king differ by
    # `near_min_step_px` or more.  (Rendered scenes, seeds 1, 7 and 30: 634, 336 and 251
    # squares misread without; 606, 314 and 245 with it.  With no least difference: 618, 323
    # and 247 (at 10-20 deg, where they differ by 2-4 px, as many calls went wrong as right);
    # seed 7 from 2.5 px: 315, 3.5: 324, 4: 330.  Seed 7 with every sample so, in every fit:
    # 318, and 14 of the vision tests' pieces read otherwise; with near_apart 1: 344, 1.5:
    # 334, 3: 324; with near_dark_shade 0.55: 316, 0.85: 317.  Off in a picture with no
    # colour, vision.pieces.classify.)
    near_apart: float = 2.0
    near_dark_shade: float = 0.7
    near_min_step_px: float = 3.0
    spot_delta: float = 40.0  # a specular spot is this much lighter (0..255) than piece/board
    # and no longer along the view (longer: a clipped top face).  (In the king test's
    # likeness too, so a long bright run, lit board past a hard shadow's edge, counts as
    # board: seeds 1, 7, 30: 565 -> 558, 312 -> 314, 231 -> 234, the new misreads all in
    # glare; only for pieces under a veil of 8 levels or less: 564, 311, 231.)
    spot_max_sq: float = 0.3
    shifts: int = 13  # off-centre shifts tried along the view (within max_offset_sq)
    # Pieces stand near their squares' centres: a fit that needs a shift (along the view, or
    # across it for the width) past `free_shift_sq` pays, on every line, `shift_cost` of a
    # sample's score for each sample's length beyond it.  Where the board before a piece is a
    # dark shade of the piece's own colour (a white piece before a black or navy square, an
    # orange one before walnut), its near edge hardly shows, and a fit free to shift took a
    # man for a king set back by a disc's lean.  (Rendered scenes, seeds 1, 7 and 30: 827, 271
    # and 421 squares misread with no cost; 788, 265 and 413 with it along the view only, 768,
    # 260 and 412 across too.  On seed 1, along: free 0.08: 813, 0.12: 798; cost 0.7: 796,
    # 2: 790; free 0.05 at cost 0.5: 825; across: free 0.06: 790, 0.13: 785; cost 0.5: 774,
    # 2: 768.)
    free_shift_sq: float = 0.1
    shift_cost: float = 1.0
    split: float = 0.0  # king when the fit prefers two discs by more than this (-1..1)
    # Without a calibrated lens, which misjudges every lean alike, the disc height is measured
    # from the pieces in view, between these shares of the configured one.
    measure_height: bool = True
    height_range: tuple[float, float] = (0.6, 2.0)
    heights: int = 9
    known_heights: int = 49  # tried where each piece's discs are known (vision.kings.fit_height)
    # And there each disc's lean costs this share of it (of `height_scores`' most per disc):
    # the least height that explains a piece wins.  Rendered start positions at 35 deg, seeds
    # 330-339: 7 mm discs read 7.3-8.5 mm without, 6.4-7.9 with 0.2; 10 mm 9.9-11.2, with
    # 9.1-10.4; 12 mm 11.7-13.3, with 10.9-12.7; 5 mm 5.4-6.8, with 4.8-6.4.
    known_length_cost: float = 0.2
    min_pieces_for_height: int = 4
    king_cost: float = 0.1  # share of a piece's largest difference a king must win by there
    # Without a calibrated lens, views steeper than this say nothing about kings (see
    # vision.king_samples.KingSamples.leans_known).  From 20 degrees the focal length the
    # board gives is good enough (rendered scenes read uncalibrated, 20-30 degrees: kings 86%
    # right, men 98.6%); at 10 the three real photographs lose squares to men read as kings.
    uncalibrated_min_tilt_deg: float = 20.0
    min_step_px: float = 1.0  # below this man-to-king image difference nothing is decided
    full_step_px: float = 6.0  # from this difference on, the fit alone sets the confidence
    # Below `weak_step_px` the split rises towards split + weak_split at `min_step_px`: with
    # little evidence, the commoner answer (a man) is the better guess.
    weak_split: float = 0.1
    weak_step_px: float = 3.0
    # Under a glare veil the board beyond a piece is lit past what the smooth light model
    # follows and passes for more piece: the split rises by up to `veil_split`, reached at a
    # veil of `veil_full` (0..255) over the piece's square.
    veil_split: float = 0.5
    veil_full: float = 60.0
    # A piece in a glare spot does not show the veil the board does (vision.kings.
    # piece_likeness): rendered scenes, seed 1, 652 -> 642 squares misread; seed 7, 350 -> 347.
    pieces_unveiled: bool = True
    clear_preference: float = 0.2  # a preference this far from the split is fairly sure
    # The wall test (vision.kings.wall_preference), added to the silhouette's preference with
    # this weight: it decides where the silhouette hardly does.  (With the board's colours as
    # voted, 2026-12-07: 0.4, 0.6, 0.7 read seed 7 with 315, 310, 313 squares wrong, 312 at
    # 0.5; 0.6 seed 1 with 569, 565 at 0.5.  Scaled down where the two heights' fits chose
    # shifts a lean apart, its reading then the silhouette's own: seed 7 317.)
    wall_weight: float = 0.5
    wall_contrast: tuple[float, float] = (20.0, 60.0)  # top minus wall brightness (0..255)
    # A band narrower than this (px) is not used.  A band of 2-3 px is a sample or so, yet it
    # still tells more than it misleads (rendered scenes, seeds 1, 7, 30, 11: 31 fewer men and
    # kings misread of 1,245 than from 3 px; seed 7 alone 5 more).
    wall_min_step_px: float = 2.0
    wall_lines_sq: float = 0.12  # only lines this close to the piece's middle
    wall_top_sq: float = 0.15  # the length of top face read beyond a king's wall
    # The wall's length measured edge to edge (vision.kings.wall_length_preference), added
    # with this weight where the wall test is, on lines whose top face begins with a rise in
    # brightness of at least `edge_rise` (0..255 over two samples); the base's near edge is
    # looked for within `edge_near_sq` of where a centred piece's would be.
    edge_weight: float = 0.1
    edge_rise: float = 20.0
    edge_near_sq: float = 0.2
    # Where the lean is large (past the shadows' fade), a call the silhouette hardly makes
    # (|preference| under `sure_silhouette`) rests on the wall alone, and is wrong about one
    # time in twenty on rendered scenes against one in four hundred otherwise: its certainty
    # keeps only `wall_alone_sure` of itself as the silhouette's preference falls to zero.
    sure_silhouette: float = 0.35
    wall_alone_sure: float = 0.5
    # Not shaped like a piece (a hand the colour of a set, a glare spot): as wide as the widest
    # width tried, and looking like the piece, on average more than `beyond_likeness`, this far
    # beyond where a king would end on `beyond_sides` of its three sides (far, near, across).
    beyond_sq: float = 0.08
    beyond_likeness: float = 0.5
    beyond_sides: int = 2
    # Beside a square already read as under a hand, one side is enough, looking like the piece
    # more than `hand_beyond_likeness`: the hand's edge over the square's far part (where a
    # king's top would be) or across it, the colour of a set, read as a piece or a king.
    hand_beyond_likeness: float = 0.4
    hand_beyond_sides: int = 1


@dataclass(frozen=True)
class ShadowConfig:
    """The shadow test (vision.shadows): a stack twice as tall casts a shadow twice as long."""

    angles: int = 36  # directions of the polar grid around each square
    radii_sq: tuple[float, float] = (0.3, 1.0)  # its extent from the square's centre
    step_px: float = 2.0  # and its spacing along each direction
    margin_px: float = 2.5  # kept off every piece's silhouette (blur)
    ring_sq: float = 0.08  # the band just beyond a piece where the light's direction is read
    sector_deg: float = 60.0  # points this far off the shadow's direction are read
    lengths_sq: tuple[float, float, int] = (0.03, 0.6, 16)  # one disc's shadow, tried
    king_cost: float = 0.1  # as KingConfig.king_cost, for the shadow length
    contrast: tuple[float, float] = (0.06, 0.15)  # shadow darkening: no evidence .. full
    min_band_share: float = 0.25  # of a band's points that must be visible
    # Each point counts as (its bare board's brightness / the brightest's) to this power (the
    # sharper power 2 did no better; rendered scenes, seeds 1, 7, 30, 11: 26 fewer men and
    # kings misread of 1,271 with 1, and 2 more on seed 1 with 2).
    lum_weight: float = 1.0
    # Pieces under a glare veil brighter than this (0..255) do not measure the light, unless
    # fewer than `min_voters` pieces are left.
    max_voter_veil: float = 10.0
    min_voters: int = 4
    # Added to the king stage's preference with this weight while a man and a king differ by
    # less than the first figure (px) in the image, fading to nothing at the second: there the
    # silhouette is sure and the shadow would only add noise.
    weight: float = 0.5
    fade_px: tuple[float, float] = (4.0, 8.0)


@dataclass(frozen=True)
class RimConfig:
    """The rim test (vision.rims): a piece the colour of its square, seen by its outline."""

    step_sq: float = 0.02  # the sampling grid on a man's top face's plane
    size_sq: float = 0.6  # how far it reaches from the square's centre
    radius_scales: tuple[float, ...] = (0.9, 1.0, 1.1)  # of PieceGeometry.radius_sq
    max_offset_sq: float = 0.125  # how far off the square's centre a rim is sought
    coarse_centres: int = 5  # first on this many centres a side, then half as far apart
    coarse_angles: int = 32  # on so many angles around the circle first, then `angles`
    angles: int = 64
    core_sq: float = 0.25  # the middle of a square, where the noise is measured
    # Searched only where the mean change between these distances from the centre is this
    # many times the noise.
    screen_sq: tuple[float, float] = (0.25, 0.55)
    screen: float = 1.4
    band_sq: float = 0.02  # the rim's change is sought this far either side of the circle
    apart_sq: float = 0.075  # and compared with the change this far inside and outside
    noise_floor: float = 0.5  # the least gradient noise assumed (levels per sample)
    line_sq: float = 0.08  # the grid's lines (this close, or `line_px`) say nothing
    line_px: float = 3.5
    quantile: float = 40.0  # the share of angles (%) a rim shows on: 100 - this
    min_strength: float = 1.1  # in units of that noise: a rim,
    min_change: float = 1.0  # and in levels per sample at least (a JPEG's blocks are less)
    max_veil: float = 25.0  # not on a square under more glare veil than this (levels)
    # In a picture with no colour, up to this veil: there a set as grey as its squares is seen
    # by its rims alone, and a glare veil over much of the board hid it.  (Rendered scenes
    # read so, 300 each: squares misread on seeds 1, 7 and 30 891 -> 864, 966 -> 941 and 774
    # -> 762; pieces read as empty 147 -> 103, 152 -> 121, 81 -> 58; bare squares read as
    # pieces unchanged, 57, 59 and 62.)
    grey_max_veil: float = 80.0


@dataclass(frozen=True)
class VisionConfig:
    pieces: PieceGeometry = PieceGeometry()
    kings: KingConfig = KingConfig()
    shadows: ShadowConfig = ShadowConfig()
    rims: RimConfig = RimConfig()
    # Sampling.
    centre_radius_frac: float = 0.8  # of the piece radius: where the base/top is sampled
    centre_height_share: float = 0.5  # of a man's height: the height that disc is read at
    king_top_radius_frac: float = 0.5  # of the piece radius: where a king's colour is read
    corner_inset_sq: float = 0.07  # reference patches sit this far inside a square's corners
    corner_patch_sq: float = 0.12
    blur_px: int = 3  # box blur before sampling (noise and JPEG blocks)
    # Light: gain and veil fitted to the bare-board references within about this distance.
    light_sigma_sq: float = 0.5
    # Occupancy: colour change relative to the board's dark/light contrast.
    occupied_contrast: float = 0.1
    occupied_spread: float = 4.0  # times the median variation of bare dark squares
    occupied_share: float = 0.35  # of the base disc that must differ from the bare square
    # The second look (piece colours known) keeps a set that is a shade of the bare square to
    # its own brightness, so that its shades do not take in bare squares: a shade within
    # `shade_within` of its distance from the square.  Red men on walnut squares pass at
    # about 0.22, and those in shadow, darker than 0.8 of their set, read as empty.  So for
    # occupancy alone, where the first look saw `there_first_share` of the disc off the bare
    # square, a set counts as a shade only within `there_within`.  (Rendered scenes, seeds 1,
    # 7, 30: 710, 245, 384 squares misread before; 702, 245, 383 with these; 701, 248, 380
    # at 0.2 with no first-look share asked, 707 on seed 1 at 0.15, 706 at 0.25.)  A set
    # claims no square the first look saw bare only as a shade within `there_within` too: on
    # nearly black squares any warm set is a shade within `shade_within` (red men on black
    # squares in a photo taken small were dropped).
    shade_within: float = 0.35
    there_within: float = 0.2
    there_first_share: float = 0.6
    # A square whose bare corners differ this much in brightness (gain max / min) has a
    # shadow's edge across it: its own shades in between are bare whatever the light model says.
    edge_span: float = 1.35
    occupied_texture: float = 0.35  # std inside the piece region relative to the contrast
    # A piece set's colour is at least this far (8-bit Lab) and one threshold off the bare
    # square: a just-visible difference, which no player's set comes near.
    min_set_distance_lab: float = 16.0
    # A set nearer its squares' colour than that is still seen when it shows on several
    # squares (vision.pieces._camouflaged_pieces): at least this many free squares with this
    # share of the disc off the bare colour, where 90 % of the others have at most
    # `camouflage_bare_share` (0.03 before: a man of the set that hardly shows, two pixels of
    # his disc off, counts among the others, and three such men of 13 hid the other ten).  A
    # square counts as clean up to `camouflage_clean_share`.
    camouflage_min_squares: int = 3
    camouflage_share: float = 0.08
    camouflage_bare_share: float = 0.06
    camouflage_clean_share: float = 0.03
    camouflage_confidence: float = 0.6  # what such a square's reading is worth
    camouflage_max_stray: float = 0.3  # the occupancy threshold's largest share of contrast
    # A darker set this near the dark squares' colour (a share of the two sets' distance) is a
    # set the colour of its squares: squares differing a little, as its men do, are its men,
    # when there are at least `camouflage_set_min_squares` of them and the set is darker than
    # the squares (lightness at most `camouflage_set_darker` times theirs; see
    # vision.pieces.classify).  (Three, as for `camouflage_min_squares`: with four, three
    # black men on walnut in a lit strip beside a hard shadow were dropped and the white set
    # in its two lights read as two sets; rendered scenes, seed 1: 660 squares misread with
    # four, 656 with three; seed 7: 352 both.)
    camouflage_set_apart: float = 0.4
    camouflage_set_min_squares: int = 3
    camouflage_set_darker: float = 0.9
    # Two sets found, the darker a shade of the lighter at least this bright (times), are one
    # set in two lights where several squares show a set the colour of its squares.
    camouflage_one_set_light: float = 0.45
    # Profile lines along the view, at these offsets across it (squares).
    max_offset_sq: float = 0.15  # how far from its square's centre a piece may stand
    # Occlusion: a colour far from board, both piece sets and local light (relative units).
    foreign_contrast: float = 0.45
    foreign_light_squares: int = 2
    corner_probe_sq: float = 0.1  # grid-corner quadrant samples, this far from the corner
    corner_contrast: float = 0.35  # a visible corner shows this share of the board contrast
    corner_veil_rms: float = 5.0  # a washed-out corner fits board colours under a veil this well
    corner_veil_min_contrast: float = 40.0  # ... between board colours this far apart (BGR)
    # A square two of whose grid corners show no checker pattern has something over it (the
    # hand touches it; the referee waits rather than guess).
    hidden_corners: int = 2
    washed_out_level: float = 200.0  # four quadrants this bright at a corner: washed out by light
    # So is a corner at least `washed_grey_level` bright and grey (its mean colour's channels
    # within `washed_grey_chroma` of their mean) where the squares still differ a little (a
    # quadrant `washed_grey_spread` from the four's mean colour).  Glare drives colours to
    # white; a hand has skin's hue, and a grey sleeve is one colour over all four.  (Rendered
    # scenes, seed 1: 36 more of the 187 corners glare hid pass, 1 more of 4,391 under hands.)
    washed_grey_level: float = 160.0
    washed_grey_chroma: float = 0.12
    washed_grey_spread: float = 8.0
    foreign_share: float = 0.3  # of a square's centre that must be foreign to call it hidden
    # A hand reaches in from beyond the board: a square read as covered inside the board, with
    # no covered square diagonally beside it, is read as what it shows (vision.occlusion.
    # lone_inside).  False: reported covered as the other tests found it.
    hands_reach_in: bool = True
    # A set's colour up to this many times as bright is not foreign: where a hard shadow falls
    # over most of a set, its colour is learned in the shadow, and a man standing in the light
    # read as a hand.  (Rendered scenes, seeds 1, 7 and 30: 743, 250 and 399 squares misread
    # at 1, 739, 250 and 396 at 1.6; at 2.5, 737, 250 and 397, a pale hand over a pale set
    # newly taken for a man.)
    lit_piece_shade: float = 1.6
    # A light "piece" glare may have made (vision.soft_edges), under a veil of at least
    # `glare_edge_veil` levels, is the glare's soft fall-off over a bare square when its edges
    # are less than `glare_edge_share` as sharp as the median piece's and below
    # `glare_edge_max` outright, over a brightness span of at least `glare_edge_span` levels
    # (edges read within `glare_edge_inside_sq` of the square's middle, short of the grid
    # lines; only with `glare_edge_min_pieces` pieces in view to compare with).
    glare_edge_veil: float = 5.0
    glare_edge_share: float = 0.55
    glare_edge_max: float = 0.12
    glare_edge_span: float = 12.0
    glare_edge_inside_sq: float = 0.45
    glare_edge_min_pieces: int = 4
    glare_edge_confidence: float = 0.6  # what such a square's reading (empty) is worth
    # A square to be reported occluded for glare's sake (vision.soft_edges.settle_by_edges):
    # a glare spot when less than this share as sharp as the median piece, a piece when this
    # share as sharp or more over a span of this many levels.
    edge_soft_share: float = 0.6
    edge_sharp_share: float = 0.9
    edge_sharp_span: float = 60.0
    # Such a square's middle burnt out by glare (vision.soft_edges.burnt_out) is bare: at the
    # sensor's limit `burnt_level` in some channel, the rest the dark square under a grey veil
    # at a gain within `burnt_gain` (residual at most `burnt_miss`), spanning less than
    # `burnt_span` levels.  No base pixel at that limit in two channels is foreign either.
    # (Rendered scenes, seeds 1, 7 and 30: 768, 260 and 412 squares misread before, 743, 250
    # and 399 with both, none newly; bare squares so burnt out were reported occluded.  A
    # light "piece" in glare so burnt out is bare too (vision.soft_edges.soft_glare): 739,
    # 250 and 396 -> 728, 249 and 394, none newly.)
    burnt_level: float = 250.0
    burnt_gain: tuple[float, float] = (0.5, 2.0)
    burnt_miss: float = 12.0
    burnt_span: float = 30.0
    # The frame's extent past the grid on each side (vision.frame_extent): the farthest of the
    # probes `frame_probe_step_sq` apart out to `frame_reach_sq` at which the median colour
    # along the side is within `frame_match` (0..255) of the side's frame colour (read within
    # `frame_ref_sq` of the grid) at a brightness in `frame_shade`.  Beyond it the king stage
    # reads nothing.  (Rendered scenes, seeds 1, 7 and 30: 728, 249 and 394 squares misread
    # with the table beyond a far-rank piece read as frame, 722, 248 and 392 without; the
    # table, a darker shade of a grey frame, passed for it at a shade of 0.5 and 30 levels.)
    frame_probe_step_sq: float = 0.06
    frame_reach_sq: float = 1.2
    frame_ref_sq: tuple[float, float] = (0.1, 0.25)  # each side's colour is read this far out
    frame_match: float = 10.0
    frame_shade: tuple[float, float] = (0.85, 1.2)
    # Automatic localisation.
    locate_max_side_px: int = 640

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VisionConfig:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"vision config: unknown field(s) {sorted(unknown)}")
        data = dict(data)
        if isinstance(data.get("pieces"), dict):
            data["pieces"] = PieceGeometry(**data["pieces"])
        if isinstance(data.get("kings"), dict):
            data["kings"] = KingConfig(**data["kings"])
        if isinstance(data.get("shadows"), dict):
            data["shadows"] = ShadowConfig(**data["shadows"])
        if isinstance(data.get("rims"), dict):
            data["rims"] = RimConfig(**data["rims"])
        return cls(**data)
