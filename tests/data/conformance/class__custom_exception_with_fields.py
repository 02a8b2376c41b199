class ValidationError(Exception):
    def __init__(self, field, problem):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
try:
    raise ValidationError("age", "must be positive")
except ValidationError as e:
    r = (str(e), e.field, e.args, isinstance(e, Exception), repr(e))
r
