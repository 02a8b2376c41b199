class Boom(Exception):
    pass
raise Boom("it broke")
