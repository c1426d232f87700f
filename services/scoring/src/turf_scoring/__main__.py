from turf_scoring.app import main

main()
