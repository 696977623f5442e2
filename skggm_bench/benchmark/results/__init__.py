"""Results: the result columns (the one schema), the SQLite store (append, resume,
read-only reading, merge, export), provenance and the messages of rows.

Reading results never imports a learner, a generator or a data model: a store is
self-describing.
"""
