from contracts_app.services.activation import route_activate
from contracts_app.services.routes import route_update
from contracts_app.services.versions import contract_version_create, route_create

__all__ = ["contract_version_create", "route_activate", "route_create", "route_update"]
