from numfuzz.cli import main

main()
