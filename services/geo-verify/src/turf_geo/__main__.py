from turf_geo.app import main

main()
