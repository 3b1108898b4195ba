// Compiled with @tsconfig/node20's settings (tsconfig.node20.json: lib es2023,
// no skipLibCheck) by `npm run typecheck`: lib/index.d.ts must check there
// too, though that lib has no Symbol.dispose (issue 37, finding 14).
import * as dl from 'dlpack';

const x = dl.tensor([1, -2, 3], { dtype: 'float32' });
// The comparisons' function forms give bool tensors, as their methods do.
const masks: dl.Tensor<'bool'>[] = [dl.gt(x, 0), dl.ge(x, 0), dl.lt(x, 0), dl.le(x, 0), dl.eq(x, 0), dl.ne(x, 0)];
const relu: dl.Tensor = dl.where(dl.gt(x, 0), x, 0);
const later: Promise<dl.Tensor<'bool'>> = dl.eq(x, 1, { async: true });
// Disposal through the symbol, where the lib declares none of its own.
x[Symbol.dispose]();
void [masks, relu, later];
