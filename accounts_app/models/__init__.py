from accounts_app.models.roles import UserRole
from accounts_app.models.tokens import ApiToken

__all__ = ["ApiToken", "UserRole"]
