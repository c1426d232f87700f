from turf_gateway.main import main

main()
