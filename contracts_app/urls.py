from django.urls import path

from contracts_app.views import authoring, pages

urlpatterns = [
    path("routes/<str:slug>/versions/<int:number>/", pages.version_detail, name="version-detail"),
    path("routes/<str:slug>/versions/new/", authoring.version_upload, name="version-upload"),
    path("routes/<str:slug>/diff/", pages.diff_page, name="route-diff"),
]
