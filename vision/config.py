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


@dataclass(frozen=True)
class VisionConfig:
    pieces: PieceGeometry = PieceGeometry()
    # Sampling.
    centre_radius_frac: float = 0.8  # of the piece radius: where the base/top is sampled
    corner_inset_sq: float = 0.07  # reference patches sit this far inside a square's corners
    corner_patch_sq: float = 0.12
    blur_px: int = 3  # box blur before sampling (noise and JPEG blocks)
    # Occupancy: colour change relative to the board's dark/light contrast.
    occupied_contrast: float = 0.1
    occupied_spread: float = 4.0  # times the median variation of bare dark squares
    occupied_share: float = 0.35  # of the base disc that must differ from the bare square
    occupied_texture: float = 0.35  # std inside the piece region relative to the contrast
    # King test: the hidden run along the view direction, between a man's and a king's length.
    king_split: float = 0.35  # where between the two expected lengths the decision falls
    min_king_px: float = 4.0  # below this man/king image difference, do not call kings
    measure_height: bool = False  # estimate the disc height from the pieces in view
    min_pieces_for_height: int = 4
    height_percentile: float = 30.0
    # Profile lines along the view, at these offsets across it (squares).
    line_offsets_sq: tuple[float, ...] = (-0.15, -0.075, 0.0, 0.075, 0.15)
    profile_step_px: float = 1.0  # sampling step along profile lines
    max_offset_sq: float = 0.15  # how far across the view a piece may stand off-centre
    not_board_contrast: float = 0.3  # a profile pixel this far from the board is 'something'
    # Holes in a hidden run (ridges, a specular spot on a dark piece) bridged up to this length.
    max_gap_sq: float = 0.03
    highlight_delta: float = 40.0  # a highlight is this much lighter (0..255) than its piece
    # Occlusion: a colour far from board, both piece sets and local light (relative units).
    foreign_contrast: float = 0.45
    foreign_light_squares: int = 2
    corner_probe_sq: float = 0.1  # grid-corner quadrant samples, this far from the corner
    corner_contrast: float = 0.35  # a visible corner shows this share of the board contrast
    hidden_corner_share: float = 0.6  # of a square's interior corners hidden -> occluded
    foreign_share: float = 0.3  # of a square's centre that must be foreign to call it hidden
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
        return cls(**data)
