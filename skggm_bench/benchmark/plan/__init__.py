"""Run generation: the study's cells and fits, their seeds, shards and graph axis.

Everything here is a pure function of the study's parameters: what to run, with
which seed, in which part of a job array. Nothing here runs a learner.
"""
