from datetime import date, timedelta
d = date(2024, 2, 27)
(d + timedelta(days=3), (date(2024, 12, 25) - d).days, d.weekday(), d.isoformat(), d.replace(year=2023), date.fromisoformat("2020-01-31") + timedelta(weeks=1), d.strftime("%d/%m/%Y %A"), d.isocalendar()[1])
