# requires: 3.11
g = BaseExceptionGroup("mixed", [ValueError(1), KeyboardInterrupt()])
h = BaseExceptionGroup("plain", [ValueError(1)])
(type(g).__name__, type(h).__name__, isinstance(h, Exception))
