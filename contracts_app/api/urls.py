from django.urls import path

from contracts_app.api import documents, views

urlpatterns = [
    path("routes/", views.RouteListApi.as_view(), name="api-routes"),
    path("routes/<str:slug>/", views.RouteDetailApi.as_view(), name="api-route"),
    path("routes/<str:slug>/versions/", views.VersionListApi.as_view(), name="api-versions"),
    path("routes/<str:slug>/versions/<int:number>/", views.VersionDetailApi.as_view(), name="api-version"),
    path(
        "routes/<str:slug>/versions/<int:number>/render", views.RenderApi.as_view(), name="api-version-render"
    ),
    path("routes/<str:slug>/diff", views.DiffApi.as_view(), name="api-diff"),
    path("contracts/validate", documents.ValidateApi.as_view(), name="api-contracts-validate"),
    path("contracts/import", documents.ImportApi.as_view(), name="api-contracts-import"),
    path("contracts/schema.json", documents.ContractSchemaApi.as_view(), name="api-contracts-schema"),
]
