from charz.cli import main

main()
