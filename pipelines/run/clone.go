package run

import "reflect"

// clone returns a deep copy of v (slices, maps, pointers and exported
// struct fields are copied; strings are immutable and shared) and the
// approximate number of bytes it holds. Readers may reuse a Document after
// Sink.Document returns, so a record kept beyond that call is cloned.
func clone[T any](v *T) (*T, int) {
	out := new(T)
	n := deepCopy(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out, n
}

func deepCopy(dst, src reflect.Value) int {
	switch src.Kind() {
	case reflect.String:
		dst.Set(src)
		return src.Len()
	case reflect.Slice:
		if src.IsNil() {
			return 0
		}
		// Lists of strings and bytes (paragraphs, authors, raw records)
		// make up most of a document: they are copied whole, without a
		// Value for each element to set.
		if k := src.Type().Elem().Kind(); k == reflect.String || k == reflect.Uint8 {
			s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
			reflect.Copy(s, src)
			dst.Set(s)
			n := 24
			if k == reflect.Uint8 {
				return n + 8*src.Len()
			}
			for i := 0; i < src.Len(); i++ {
				n += src.Index(i).Len()
			}
			return n
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		n := 24
		for i := 0; i < src.Len(); i++ {
			n += deepCopy(s.Index(i), src.Index(i))
		}
		dst.Set(s)
		return n
	case reflect.Struct:
		// Copy the whole value first (unexported fields such as those of
		// time.Time come along), then deepen the exported ones.
		dst.Set(src)
		n := int(src.Type().Size())
		for i := 0; i < src.NumField(); i++ {
			f := dst.Field(i)
			switch {
			case !f.CanSet():
			case f.Kind() == reflect.String:
				n += f.Len() // copied with the struct
			default:
				n += deepCopy(f, src.Field(i))
			}
		}
		return n
	case reflect.Pointer:
		if src.IsNil() {
			return 0
		}
		p := reflect.New(src.Type().Elem())
		n := 8 + deepCopy(p.Elem(), src.Elem())
		dst.Set(p)
		return n
	case reflect.Map:
		if src.IsNil() {
			return 0
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		n := 48
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			v := reflect.New(src.Type().Elem()).Elem()
			n += deepCopy(k, it.Key()) + deepCopy(v, it.Value())
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
		return n
	default:
		dst.Set(src)
		return 8
	}
}
