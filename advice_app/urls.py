from django.urls import path

from advice_app.views import pages

# The pages that show advice runs are dashboard_app's (routes/<slug>/advice/, advice/<id>/).
urlpatterns = [
    path("routes/<str:slug>/advice/new", pages.advice_create, name="advice-create"),
    path("advice/<int:advice_id>/draft", pages.advice_draft, name="advice-draft"),
    path("advice/<int:advice_id>/propose", pages.advice_propose, name="advice-propose"),
]
