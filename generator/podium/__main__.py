from podium.commands.cli import main

if __name__ == "__main__":  # not when a worker process imports it (render/site.py)
    main()
