from releases_app.models.decisions import Decision
from releases_app.models.releases import Release

__all__ = ["Decision", "Release"]
