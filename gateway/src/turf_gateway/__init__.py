"""The gateway: HTTP and the spectators' websocket in front of the services, with the shape of a service.

``api/`` and ``feed/`` are the entrypoints (HTTP routes and their edge middleware; the feed's consumers),
``handlers/`` the use cases and the pure policies beside them, ``ports.py`` what the use cases need,
``adapters/`` everything that talks to PostgreSQL, Redis, NATS, argon2, a geocoder or matplotlib,
``bootstrap.py`` the one place they are wired, ``main.py`` the app, ``testing.py`` the fakes."""
