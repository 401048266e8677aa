import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")
django.setup(set_prefix=False)

from django.core.asgi import get_asgi_application  # noqa: E402

from observability_app.tracing import start_web_tracing  # noqa: E402

# Before the handler is built, as in wsgi.py.
start_web_tracing()
django_application = get_asgi_application()

from kernel.api.guard import asgi_charset_guard  # noqa: E402  (once Django is set up)

# In front of Django, as in wsgi.py: a bz2 charset fails while Django builds the request.
application = asgi_charset_guard(django_application)
