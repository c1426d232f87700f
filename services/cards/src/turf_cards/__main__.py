from turf_cards.app import main

main()
