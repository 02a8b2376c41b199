import statistics
data = [2, 4, 4, 4, 5, 5, 7, 9]
(statistics.mean(data), statistics.median(data), statistics.mode(data), statistics.pstdev(data), round(statistics.stdev(data), 6), statistics.median_low([1, 3, 5, 7]), statistics.fmean([1, 2]))
