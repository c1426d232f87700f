from turf_clock.app import main

main()
