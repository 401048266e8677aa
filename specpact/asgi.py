import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
django_application = get_asgi_application()

from kernel.api.guard import asgi_charset_guard  # noqa: E402  (once Django is set up)

# In front of Django, as in wsgi.py: a bz2 charset fails while Django builds the request.
application = asgi_charset_guard(django_application)
