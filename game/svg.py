"""SVG diagrams of a position, with the last move marked (for the web page and the README)."""

from __future__ import annotations

from xml.sax.saxutils import escape

from game.board import WHITE, BaseBoard, Move

LIGHT = "#f0d9b5"
DARK = "#8b5a2b"
MARK = "#f6d743"
PIECE_FILL = {WHITE: "#f8f4e8", "black": "#2b2b2b"}
PIECE_EDGE = {WHITE: "#6b6b6b", "black": "#000000"}


def board_svg(board: BaseBoard, last_move: Move | None = None, size_px: int = 400,
              flipped: bool = False, coordinates: bool = True,
              highlight: tuple[int, ...] = ()) -> str:
    """An SVG picture of `board`.  `last_move` marks its path and captured squares;
    `highlight` outlines squares (e.g. squares to restore, or legal moves for a hint)."""
    g = board.geometry
    margin = 16 if coordinates else 0
    inner = size_px - 2 * margin
    cell = inner / g.width
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size_px} {size_px}" '
           f'width="{size_px}" height="{size_px}" role="img" '
           f'aria-label="{escape(board.variant.title)} position">',
           f'<rect width="{size_px}" height="{size_px}" fill="#3a2a1a"/>']

    def xy(file: int, rank: int) -> tuple[float, float]:
        if flipped:
            file, rank = g.width - 1 - file, g.height - 1 - rank
        return margin + file * cell, margin + (g.height - 1 - rank) * cell

    for rank in range(g.height):
        for file in range(g.width):
            x, y = xy(file, rank)
            colour = DARK if (file + rank) % 2 == 0 else LIGHT
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                       f'fill="{colour}"/>')
    if last_move is not None:
        for sq in last_move.path:
            x, y = xy(*g.coords[sq])
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                       f'fill="{MARK}" fill-opacity="0.45" class="last-move"/>')
        pts = " ".join(f"{xy(*g.coords[s])[0] + cell / 2:.1f},{xy(*g.coords[s])[1] + cell / 2:.1f}"
                       for s in last_move.path)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{MARK}" stroke-width="'
                   f'{cell * 0.08:.1f}" stroke-linecap="round" stroke-linejoin="round" '
                   f'opacity="0.9"/>')
    for sq in highlight:
        x, y = xy(*g.coords[sq])
        out.append(f'<rect x="{x + 2:.1f}" y="{y + 2:.1f}" width="{cell - 4:.1f}" '
                   f'height="{cell - 4:.1f}" fill="none" stroke="#e03030" stroke-width="3" '
                   f'class="highlight"/>')
    r = cell * 0.38
    for sq, piece in board.piece_map().items():
        x, y = xy(*g.coords[sq])
        cx, cy = x + cell / 2, y + cell / 2
        key = WHITE if piece.color is WHITE else "black"
        fill, edge = PIECE_FILL[key], PIECE_EDGE[key]
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{fill}" '
                   f'stroke="{edge}" stroke-width="1.5" class="{piece.value}"/>')
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.7:.1f}" fill="none" '
                   f'stroke="{edge}" stroke-width="0.8" opacity="0.6"/>')
        if piece.is_king:
            out.append(f'<text x="{cx:.1f}" y="{cy + r * 0.35:.1f}" font-size="{r:.1f}" '
                       f'text-anchor="middle" fill="#c8102e" font-family="sans-serif">'
                       f'\u265b</text>')
    if last_move is not None:
        for sq in last_move.captured:
            x, y = xy(*g.coords[sq])
            out.append(f'<path d="M{x + cell * 0.25:.1f},{y + cell * 0.25:.1f} '
                       f'L{x + cell * 0.75:.1f},{y + cell * 0.75:.1f} M{x + cell * 0.75:.1f},'
                       f'{y + cell * 0.25:.1f} L{x + cell * 0.25:.1f},{y + cell * 0.75:.1f}" '
                       f'stroke="#c8102e" stroke-width="3" class="captured"/>')
    if coordinates:
        fs = margin * 0.7
        for file in range(g.width):
            x, _ = xy(file, 0)
            out.append(f'<text x="{x + cell / 2:.1f}" y="{size_px - margin * 0.25:.1f}" '
                       f'font-size="{fs:.1f}" text-anchor="middle" fill="#eee" '
                       f'font-family="sans-serif">{"abcdefghijklmnopqrstuvwxyz"[file]}</text>')
        for rank in range(g.height):
            _, y = xy(0, rank)
            out.append(f'<text x="{margin / 2:.1f}" y="{y + cell / 2 + fs / 3:.1f}" '
                       f'font-size="{fs:.1f}" text-anchor="middle" fill="#eee" '
                       f'font-family="sans-serif">{rank + 1}</text>')
    out.append("</svg>")
    return "\n".join(out)
