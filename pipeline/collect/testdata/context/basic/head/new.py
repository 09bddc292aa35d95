def old():
    return 10


def keep():
    return 2
