from django.urls import path

from releases_app.views import pages

urlpatterns = [
    path("releases/", pages.release_list, name="release-list"),
    path("releases/propose", pages.release_propose, name="release-propose"),
    path("releases/<int:release_id>/<str:action>", pages.release_action, name="release-action"),
]
