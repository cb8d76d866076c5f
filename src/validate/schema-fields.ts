import type { z } from 'zod';

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType>; options?: z.ZodType[]; in?: z.ZodType };

/**
 * The fields that the object at `path` of a schema accepts (empty when there is no object
 * there), so a misspelt field can be matched against the real ones.
 */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  return objectsAt(schema, path).flatMap((object) => Object.keys((object._zod.def as Def).shape ?? {}));
}

function objectsAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType[] {
  const def = schema._zod.def as Def;
  const inner = def.innerType ?? def.in;
  if (inner) return objectsAt(inner, path);
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => objectsAt(option, path));
  const [head, ...rest] = path;
  if (head === undefined) return def.type === 'object' ? [schema] : [];
  if (def.type === 'array' && typeof head === 'number') return objectsAt(def.element!, rest);
  const field = def.type === 'object' && typeof head === 'string' ? def.shape?.[head] : undefined;
  return field ? objectsAt(field, rest) : [];
}
