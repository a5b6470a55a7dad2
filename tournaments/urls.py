"""The web pages."""

from django.urls import path

from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
]
