from turf_claims.app import main

main()
