from aria_mem.cli.app import main

main()
