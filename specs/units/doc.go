// Package units parses units of measurement as they are written in
// scientific text ("W/mK", "W m⁻¹ K⁻¹", "mg/kg", "°C", "kDa", "MPa", "%")
// and converts values between units of the same dimension.
//
// It is a documented table, not a general-purpose units library: the SI
// base and derived units, the usual non-SI units of the literature (eV,
// °C, °F, bar, atm, mmHg, Da, M, L, min, h, Å, %, ppm...), the SI prefixes
// from quecto to quetta, and compound units built with "/", "·", "*", a
// space or juxtaposed exponents ("m2", "m^-1", "K⁻¹", "(m·K)"). A
// [Unit] is a factor and an offset to the coherent SI unit of its
// [Dim]ension; only temperatures have an offset, and an offset applies to
// absolute values, never to differences or uncertainties ([Unit.ToSIDelta]).
//
// Symbols are matched exactly before a prefix is split off, so "min" is a
// minute, "mm" a millimetre, "cd" a candela and "Pa" a pascal. The one
// deliberate exception is the literature's "W/mK", which means W/(m·K),
// not watts per millikelvin.
package units
