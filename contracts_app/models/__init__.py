from contracts_app.models.routes import Route
from contracts_app.models.versions import ContractVersion

__all__ = ["ContractVersion", "Route"]
