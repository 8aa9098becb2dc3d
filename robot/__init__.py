"""The robot's hand: GRBL gantry driver, electromagnet and collision-free piece routing.

Imports `game` types and `calibration` data only; never `vision`, `sim` or `app`.
"""
