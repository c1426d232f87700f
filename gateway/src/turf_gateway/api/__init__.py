"""The HTTP entrypoint: routes (``routes/``), their dependencies (``deps.py``) and response models
(``schemas.py``), the error bodies (``errors.py``), the pages' and ``/docs``' routes, and the edge middleware
(``middleware/``)."""
