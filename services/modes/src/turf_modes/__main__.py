from turf_modes.app import main

main()
