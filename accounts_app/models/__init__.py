from accounts_app.models.roles import UserRole
from accounts_app.models.tokens import ApiToken, TokenPurpose

__all__ = ["ApiToken", "TokenPurpose", "UserRole"]
