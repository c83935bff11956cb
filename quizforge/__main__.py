from quizforge.cli import main

main()
