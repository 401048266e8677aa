import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
django.setup(set_prefix=False)

from django.core.wsgi import get_wsgi_application  # noqa: E402

from observability_app.tracing import start_web_tracing  # noqa: E402

# Before the handler is built: the Django instrumentation adds its middleware to
# MIDDLEWARE, which the handler reads once. Off (the default), it does nothing.
start_web_tracing()
django_application = get_wsgi_application()

from kernel.api.guard import charset_guard  # noqa: E402  (once Django is set up)

# In front of Django: it decodes the query string with the request's charset while
# building the request, before any middleware can refuse a bz2 one.
application = charset_guard(django_application)
