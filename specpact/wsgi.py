import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
django_application = get_wsgi_application()

from kernel.api.guard import charset_guard  # noqa: E402  (once Django is set up)

# In front of Django: it decodes the query string with the request's charset while
# building the request, before any middleware can refuse a bz2 one.
application = charset_guard(django_application)
