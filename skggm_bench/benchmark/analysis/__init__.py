"""Analysis: ranks, bootstrap intervals, rank shifts, critical differences,
generator agreement and win probabilities, computed once; no wording.
"""
