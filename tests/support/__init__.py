"""What the tests share: builders, actors, helpers, the engine emulator and its launcher.

conftest.py files hold fixtures only; everything they and the tests import lives here.
"""
