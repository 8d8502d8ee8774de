'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import { ErrorBox, Loading, Select } from './ui';

type Project = RouterOutputs['projects']['list'][number];

interface ProjectState {
  projects: Project[] | undefined;
  project: Project | undefined;
  projectId: string | undefined;
  setProjectId(id: string): void;
  isPending: boolean;
  error: unknown;
}

const ProjectContext = createContext<ProjectState | null>(null);
const STORAGE_KEY = 'wallet-console.project';

/** The project the pages show; remembered in this browser, defaulting to the first one. */
export function ProjectProvider({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.projects.list.queryOptions());
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  useEffect(() => {
    setChosen(window.localStorage.getItem(STORAGE_KEY) ?? undefined);
  }, []);
  const projects = list.data;
  const project = projects?.find((p) => p.projectId === chosen) ?? projects?.[0];
  const value: ProjectState = {
    projects,
    project,
    projectId: project?.projectId,
    setProjectId(id) {
      window.localStorage.setItem(STORAGE_KEY, id);
      setChosen(id);
    },
    isPending: list.isPending,
    error: list.error,
  };
  return <ProjectContext.Provider value={value}>{children}</ProjectContext.Provider>;
}

export function useProject(): ProjectState {
  const value = useContext(ProjectContext);
  if (!value) throw new Error('useProject outside ProjectProvider');
  return value;
}

/**
 * A link that names a project (`?project=<id>`, as search results do) switches the console to it,
 * when it is one of the partner's. Render it inside <Suspense> (it reads the URL's query).
 */
export function ProjectFromLink() {
  const linked = useSearchParams().get('project');
  const { projects, projectId, setProjectId } = useProject();
  useEffect(() => {
    if (linked && linked !== projectId && projects?.some((p) => p.projectId === linked)) setProjectId(linked);
  }, [linked, projectId, projects, setProjectId]);
  return null;
}

export function ProjectPicker() {
  const { projects, projectId, setProjectId, isPending } = useProject();
  if (isPending) return <span className="text-slate-400">Loading projects…</span>;
  if (!projects?.length) return <span className="text-slate-500">No project yet</span>;
  return (
    <label className="flex items-center gap-2">
      <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Project</span>
      <Select aria-label="Project" value={projectId} onChange={(e) => setProjectId(e.target.value)}>
        {projects.map((p) => (
          <option key={p.projectId} value={p.projectId}>
            {p.name}
          </option>
        ))}
      </Select>
    </label>
  );
}

/** Renders the page for the current project, or the state that stands in for it. */
export function WithProject({ children }: { children: (projectId: string) => ReactNode }) {
  const { projectId, isPending, error } = useProject();
  if (isPending) return <Loading label="Loading projects…" />;
  if (error) return <ErrorBox title="Projects could not be loaded" error={error} />;
  if (!projectId)
    return (
      <div className="rounded-md border border-dashed border-slate-300 px-4 py-8 text-center">
        <p className="font-medium text-slate-700">No project yet</p>
        <p className="mt-2 text-slate-500">
          Create one on the <a className="text-indigo-600 underline" href="/projects">Projects &amp; API keys</a> page.
        </p>
      </div>
    );
  return <>{children(projectId)}</>;
}
