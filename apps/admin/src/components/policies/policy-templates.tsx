'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button, Card, ErrorBox, Field, Input, Loading, Select } from '@/components/ui';
import { listEntries } from '@/lib/policy-draft';
import { apiFailure, useTRPC, type RouterOutputs } from '@/lib/trpc';

type Template = RouterOutputs['policies']['templates'][number];

/** A small form per template; "Fill editor" replaces the draft with the template's document. */
export function PolicyTemplates({ onDocument }: { onDocument: (document: unknown) => void }) {
  const trpc = useTRPC();
  const templates = useQuery(trpc.policies.templates.queryOptions(undefined, { staleTime: Infinity }));
  const [chosen, setChosen] = useState('');
  if (templates.isPending) return <Loading label="Loading templates…" />;
  if (templates.error) return <ErrorBox error={templates.error} />;
  const template = templates.data.find((t) => t.id === chosen) ?? templates.data[0];
  return (
    <Card title="Start from a template">
      <div className="space-y-3">
        <label className="flex items-center gap-2">
          <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Template</span>
          <Select aria-label="Template" value={template?.id} onChange={(e) => setChosen(e.target.value)}>
            {templates.data.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title}
              </option>
            ))}
          </Select>
        </label>
        {template ? <TemplateForm key={template.id} template={template} onDocument={onDocument} /> : null}
      </div>
    </Card>
  );
}

function TemplateForm({ template, onDocument }: { template: Template; onDocument: (document: unknown) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parameters: Record<string, unknown> = {};
    for (const p of template.parameters) {
      const value = String(form.get(p.name) ?? '');
      parameters[p.name] = p.kind === 'list' ? listEntries(value) : value;
    }
    setPending(true);
    setErrors({});
    setFailure(null);
    try {
      const { document } = await queryClient.fetchQuery(trpc.policies.fromTemplate.queryOptions({ template: template.id, parameters }, { staleTime: 0 }));
      onDocument(document);
    } catch (error) {
      const details = apiFailure(error).details ?? [];
      const byField: Record<string, string> = {};
      for (const d of details) byField[d.path.replace(/^parameters\./, '').split('.')[0] ?? ''] ??= d.message;
      if (Object.keys(byField).length > 0) setErrors(byField);
      else setFailure(error);
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={`Template: ${template.title}`} className="space-y-3">
      <p className="text-slate-600">{template.description}</p>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        {template.parameters.map((p) => (
          <Field key={p.name} label={p.label} error={errors[p.name]} {...(p.hint ? { hint: p.hint } : {})}>
            {p.kind === 'walletType' ? (
              <Select name={p.name} defaultValue={p.walletTypes?.[0]}>
                {(p.walletTypes ?? []).map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </Select>
            ) : (
              <Input name={p.name} placeholder={p.placeholder} />
            )}
          </Field>
        ))}
      </div>
      {failure ? <ErrorBox title="Template not filled" error={failure} /> : null}
      <Button type="submit" disabled={pending}>
        Fill editor
      </Button>
    </form>
  );
}
