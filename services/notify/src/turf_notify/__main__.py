from turf_notify.app import main

main()
