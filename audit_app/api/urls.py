from django.urls import path

from audit_app.api import views

urlpatterns = [
    path("audit/", views.AuditListApi.as_view(), name="api-audit"),
    path("audit/verify", views.AuditVerifyApi.as_view(), name="api-audit-verify"),
    path("audit/checkpoints/", views.AuditCheckpointListApi.as_view(), name="api-audit-checkpoints"),
    path("audit/checkpoints/public-key", views.AuditPublicKeyApi.as_view(), name="api-audit-public-key"),
]
