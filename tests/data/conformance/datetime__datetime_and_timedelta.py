from datetime import datetime, timedelta
start = datetime(2024, 1, 1, 9, 30)
end = datetime(2024, 1, 2, 17, 45, 15)
delta = end - start
(delta, delta.total_seconds(), delta.days, delta.seconds, start + timedelta(hours=20), start.strftime("%Y-%m-%d %H:%M"), datetime.fromisoformat("2024-03-04T05:06:07").hour, timedelta(minutes=90) // timedelta(hours=1), str(timedelta(days=1, seconds=5)))
