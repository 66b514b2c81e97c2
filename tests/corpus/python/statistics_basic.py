# statistics: averages, spread, quantiles, regression, NormalDist.
import statistics as st
from fractions import Fraction
from decimal import Decimal

data = [2.75, 1.75, 1.25, 0.25, 0.5, 1.25, 3.5, 1.25, 4.0, 2.0]
print(st.mean(data), st.fmean(data), st.median(data), st.median_low(data), st.median_high(data))
print(st.mode(data), st.multimode("aabbbcccd"), st.geometric_mean([1, 2, 4, 8]), st.harmonic_mean([40, 60]))
print(st.pstdev(data), st.stdev(data), st.pvariance(data), st.variance(data))
print(st.quantiles(data, n=4), st.quantiles(range(1, 101), n=10, method="inclusive"))
print(st.mean([Fraction(1, 3), Fraction(1, 6)]), st.mean([Decimal("0.1"), Decimal("0.25")]))
print(st.median_grouped([1, 2, 2, 3, 4, 4, 4, 4, 4, 5]))
x = [1, 2, 3, 4, 5, 6, 7, 8, 9]
y = [1, 3, 2, 5, 7, 8, 8, 9, 10]
print(st.correlation(x, y), st.covariance(x, y), st.linear_regression(x, y))
nd = st.NormalDist(mu=100, sigma=15)
print(nd.cdf(130), nd.inv_cdf(0.975), nd.pdf(100), nd.overlap(st.NormalDist(110, 10)))
print([round(q, 6) for q in nd.quantiles(4)], nd + 5, nd * 2)
try:
    st.mean([])
except st.StatisticsError as e:
    print("StatisticsError:", e)
