import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")

from specpact.api.guard import charset_guard

application = charset_guard(get_wsgi_application())
