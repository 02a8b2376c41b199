class AppError(Exception): pass
class NotFound(AppError): pass
class Denied(AppError): pass
def handle(exc):
    try:
        raise exc
    except NotFound:
        return "not found"
    except AppError as e:
        return f"app error {type(e).__name__}"
    except Exception:
        return "other"
[handle(e) for e in (NotFound(), Denied(), ValueError())]
