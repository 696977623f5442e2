"""Execution: the cells and fits a worker is given and their seeds, joblib / dask
dispatch, and the fork server that runs every draw and every fit in a fresh child
process (deadlines, crashes, memory limits, clean state).
"""
