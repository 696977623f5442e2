"""Run generation: the graph and model axes, shards, and how learners are shipped.

Everything here is a pure function of the study's parameters: what to run, in
which part of a job array. Nothing here runs a learner. The cells, fits and seeds
the plan describes are the types and functions of ``run/`` (``_fits.py``,
``_seeding.py``), which imports nothing from here.
"""
