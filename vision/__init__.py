"""Seeing the board: camera sources, board localisation, pieces and kings, observations over time.

Imports `game` types and `calibration` data only; never `robot`, `sim` or `app`.
"""
