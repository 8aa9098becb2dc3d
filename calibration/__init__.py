"""Geometry and colour models, and the versioned calibration file that holds them."""
