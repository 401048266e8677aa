from tests.support.engine_emulator.server import main

main()
