from django.urls import path

from audit_app import views

urlpatterns = [path("audit/", views.audit_page, name="audit")]
